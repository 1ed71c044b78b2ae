"""Re-identification models, one module each; ``reid_models`` imports them on first use."""
