"""Training: the tokenizer, the model loop, the word tables, the fitted weights, the card."""
