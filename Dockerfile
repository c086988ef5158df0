# rnnviz, CPU only, for serving: `docker build -t rnnviz .` from the repository root. The one image for every host:
# deploy/compose.yaml (replicas behind nginx), deploy/kubernetes/, and a Hugging Face Docker Space, which builds the
# Dockerfile at a repository's root and runs it as user 1000 on app_port 8501 (README "Managed hosting": the header a
# Space's README.md needs). One Streamlit process; class rooms in memory unless RNNVIZ_REDIS_URL names a Redis.
# No torch: the app serves with NumPy (requirements.txt); train and cross-check elsewhere.
# The base image is pinned by version (a tag, not a digest: the digest could not be read from the registry where this
# was written); pin it by digest (`docker buildx imagetools inspect python:3.11.13-slim-bookworm`) where you build.
FROM python:3.11.13-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STREAMLIT_SERVER_FILE_WATCHER_TYPE=none MALLOC_ARENA_MAX=2

# Every package at the version the tests ran with, each file checked against its hash (deploy/requirements.lock, from
# `pip-compile --generate-hashes deploy/requirements.in`; see the README)
# `rnnviz` is uid 1000, the user a Hugging Face Space runs as.
COPY deploy/requirements.lock /tmp/requirements.lock
RUN pip install --no-deps --require-hashes -r /tmp/requirements.lock && rm /tmp/requirements.lock \
    && useradd --create-home --uid 1000 rnnviz

# The code stays owned by root: the app user can read it, not change it.
WORKDIR /app
COPY . .
# plotly.js and the chart scripts into static/ now: the app user cannot write the tree (ui/live/chart.py would
# otherwise copy them on first use)
RUN python -c "import ui.live.assets as a, sys; sys.exit(0 if a.provide() else 1)"
USER rnnviz

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]
CMD ["streamlit", "run", "app.py", "--server.port", "8501", "--server.address", "0.0.0.0"]
