"""Erasure of documents, projects and users' data, with an audit record of each."""
