# Partida: one image for the web server, the Celery worker and Celery beat.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements.lock ./
RUN pip install -r requirements.lock

COPY . .
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput

RUN useradd --create-home partida && mkdir -p /app/media && chown partida /app/media
USER partida

EXPOSE 8000
CMD ["gunicorn", "partida.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
