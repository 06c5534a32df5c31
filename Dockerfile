# perudo: one uvicorn worker (rooms live in memory), SQLite under /app/data by default.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
# Editable, so the app finds templates/, static/ and alembic.ini beside its package.
RUN pip install -e . \
    && useradd --create-home --uid 1000 perudo \
    && mkdir -p /app/data \
    && chown perudo:perudo /app/data

USER perudo
VOLUME ["/app/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"
# Migrations run on start-up (PERUDO_MIGRATE_ON_START, default true).
CMD ["perudo", "serve", "--host", "0.0.0.0", "--port", "8000"]
