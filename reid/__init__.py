"""Re-identification: the live rank of a document's person, greedy masks, training jobs."""
