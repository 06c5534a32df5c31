# perudo: one uvicorn worker per container (rooms live in its memory).
# Stage 1 builds wheels of the app and its dependencies and installs them, and only them, into a
# virtual environment; stage 2 copies that environment (no wheels, no pip run in the image).
# The base image is a build argument (`--build-arg PYTHON_IMAGE=...`) for hosts that keep their own.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml ./
# The dependencies first, in a layer of their own: rebuilt only when pyproject.toml changes.
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > requirements.txt \
    && pip wheel --wheel-dir /wheels -r requirements.txt \
    && python -m venv --without-pip /opt/perudo \
    && pip --python /opt/perudo/bin/python install --no-index --find-links=/wheels -r requirements.txt
COPY README.md ./
COPY app ./app
RUN pip wheel --no-deps --wheel-dir /wheels/app . \
    && pip --python /opt/perudo/bin/python install --no-index --no-deps /wheels/app/*.whl

FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/perudo/bin:$PATH \
    PERUDO_DATABASE_URL=sqlite:////app/data/perudo.db \
    HOST=0.0.0.0 \
    PORT=8000
RUN useradd --create-home --uid 1000 perudo \
    && mkdir -p /app/data && chown perudo:perudo /app/data
COPY --from=build /opt/perudo /opt/perudo
WORKDIR /app
# Not part of the wheel: found beside the package's working directory.
COPY alembic.ini ./
COPY migrations ./migrations
COPY templates ./templates
COPY locale ./locale
COPY static ./static
USER perudo
VOLUME ["/app/data"]
EXPOSE 8000
# HOST and PORT: where the server listens (change PORT when containers share the host's network).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
    CMD python -c "import os, urllib.request as u; u.urlopen('http://127.0.0.1:' + os.environ['PORT'] + '/healthz', timeout=2)"
# SIGTERM: uvicorn closes the sockets (1012), the journal is written and the leases released,
# well inside Docker's 10 s. Migrations run on start-up (PERUDO_MIGRATE_ON_START). `exec` makes
# perudo the container's first process, so the signal reaches it.
STOPSIGNAL SIGTERM
CMD exec perudo serve --host "$HOST" --port "$PORT"
