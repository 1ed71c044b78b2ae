"""Explicit privacy risk in the app: stored assessments, the risk jobs and the dial API."""
