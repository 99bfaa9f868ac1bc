# The bot as a container image. To host it with PostgreSQL: `docker compose up -d --build`
# (compose.yaml; README, "Host it on a server"). On its own, with games in a SQLite file on a
# volume and the bot reading .env itself (docker's --env-file keeps quotes and comments as part
# of values): `docker run -v tictactoe-data:/data -v "$PWD/.env:/data/.env:ro" tictactoe-bot`.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# The result card's font, DejaVu Sans (Latin, Cyrillic and the Persian alphabet), and FriBiDi,
# with which Pillow shapes Persian and lays it right to left (bot/views/card_fonts.py). .ci/run
# installs the same packages, for tests/bot/test_card_scripts.py.
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-dejavu-core libfribidi0 \
    && rm -rf /var/lib/apt/lists/*

# Only what the package is built from (.dockerignore keeps .env and databases out).
WORKDIR /src
COPY pyproject.toml README.md ./
COPY core ./core
COPY bot ./bot
COPY migrations ./migrations
RUN pip install . && rm -rf /src

# Not root: the bot needs no privileges. Its working directory is /data, where the default
# SQLite database (DATABASE_URL unset) is created; mount a volume there to keep it.
RUN useradd --system --uid 10001 --create-home --home-dir /data bot
USER bot
WORKDIR /data

# The webhook server's port (WEBHOOK_PORT) in webhook mode; nothing listens when polling.
EXPOSE 8443
# SIGTERM (docker stop) makes the bot stop cleanly, as Ctrl-C does.
CMD ["tictactoe-bot", "run"]
