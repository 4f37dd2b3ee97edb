FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml ./
COPY hub ./hub
COPY rules ./rules
RUN pip install --no-cache-dir '.[fast]'
COPY web ./web
RUN cd web && npm install --no-audit --no-fund --omit=dev
COPY docs ./docs
COPY seeds ./seeds
# /app stays root's, read-only to the hub; the games live on a volume its unprivileged user owns
RUN mkdir -p /data && chown nobody:nogroup /data
VOLUME /data
ENV HUB_HOST=0.0.0.0 HUB_PORT=8000 HUB_DB=/data/hub.sqlite3
# TLS from the hub itself: mount the certificate's folder read-only and set HUB_TLS_CERT and
# HUB_TLS_KEY (docs/operations.md, "TLS"); a renewed certificate is taken without a restart
EXPOSE 8000
USER nobody
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 CMD ["python", "-m", "hub", "health"]
CMD ["python", "-m", "hub", "serve"]
