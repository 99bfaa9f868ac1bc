"""What players see: board messages rendered and shown (the presenter, the one way a game is
shown), keyboards, texts in every language, result cards, the rating and queue views."""
