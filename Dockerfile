# Partida: one image for the web server, the Celery worker and Celery beat.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# The runtime lock only (hashed; the tests' and linters' packages are in requirements-dev.lock).
COPY requirements.lock ./
RUN pip install --require-hashes -r requirements.lock

COPY . .
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput

# Uploaded media and beat's schedule live on volumes (docker-compose.yml); the directories exist
# in the image, owned by the non-root user, so new named volumes take that owner.
RUN useradd --create-home partida \
    && mkdir -p /app/media /var/lib/partida/beat \
    && chown partida /app/media /var/lib/partida/beat
USER partida

EXPOSE 8000
# One start script for every role (scripts/run): web, worker, beat, migrate.
CMD ["scripts/run", "web"]
