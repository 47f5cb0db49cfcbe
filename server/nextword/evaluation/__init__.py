"""Evaluation: the simulated typist, the baselines, and the JSON-RPC client."""
