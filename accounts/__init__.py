"""API tokens: stored hashed, with an expiry, listed and revoked through the API, and
void once their user's password changes. It imports only ``common``."""
