"""The training and evaluation text: corpus sources, their cleaners, the document reader."""
