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
ENV HUB_HOST=0.0.0.0 HUB_PORT=8000
EXPOSE 8000
USER nobody
CMD ["python", "-m", "hub", "serve"]
