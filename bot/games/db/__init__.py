"""Storage: SQLAlchemy models, the engine and the migrations runner."""
