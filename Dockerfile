# The tf.function playground as a service image (docs/hosting.md explains how to run it safely).
#   docker build -t tf-playground .                         CPU TensorFlow
#   docker build -t tf-playground:gpu --build-arg TF_VARIANT=gpu .   tensorflow[and-cuda]
#   docker build --build-arg TF_EXTRA_VERSIONS=2.15.1,2.12.1 .   extra TF versions beside the default
#   scripts/build-image.sh                                  the same, where Docker Hub is unreachable
# Follows Streamlit's deployment conventions: slim base, EXPOSE 8501, HEALTHCHECK on
# /_stcore/health, ENTRYPOINT `streamlit run app.py` on 0.0.0.0. tests/unit/deploy/test_container.py checks them.

# The official image for real deployments. scripts/build-image.sh passes a base made from Debian's
# own bookworm packages (python3 3.11, debootstrap) where Docker Hub cannot be reached.
ARG BASE_IMAGE=python:3.11-slim-bookworm
FROM ${BASE_IMAGE}

# cpu: tensorflow from requirements.txt; gpu: the same pinned version as tensorflow[and-cuda].
ARG TF_VARIANT=cpu
# Extra TensorFlow versions (comma-separated), each in its own venv beside the default, as
# scripts/install.sh --tf makes them; empty (the default): the default version only.
ARG TF_EXTRA_VERSIONS=""
ENV VENV=/opt/tf-playground/venv \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp \
    PLAYGROUND_PYTHON=/opt/tf-playground/venv/bin/python

# bubblewrap is the sandbox; nothing else (no curl: the health check uses Python).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends bubblewrap \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.txt ./
# The venv lives outside any home directory and is world-readable, as scripts/install.sh makes it;
# the pip command is the install script's, character for character (a test compares them).
RUN python3 -m venv "$VENV" \
 && "$VENV/bin/pip" install -q --disable-pip-version-check -r requirements.txt \
 && if [ "$TF_VARIANT" = "gpu" ]; then \
      "$VENV/bin/pip" install -q --disable-pip-version-check \
        "$(grep -E '^tensorflow==' requirements.txt | sed 's/^tensorflow==/tensorflow[and-cuda]==/')"; \
    elif [ "$TF_VARIANT" != "cpu" ]; then echo "TF_VARIANT must be cpu or gpu" >&2; exit 1; fi \
 && chmod -R a+rX "$VENV"
RUN for version in $(echo "$TF_EXTRA_VERSIONS" | tr ',' ' '); do \
      python3 -m venv "$VENV-tf$version" \
   && "$VENV-tf$version/bin/python" -m pip install -q --disable-pip-version-check "tensorflow-cpu==$version" \
   && chmod -R a+rX "$VENV-tf$version" || exit 1; \
    done

COPY app.py ./
COPY playground/ ./playground/
COPY .streamlit/ ./.streamlit/

# Non-root: the sandbox cannot switch uids here, but bubblewrap still gives each job its own
# user, mount, PID, network, IPC and UTS namespaces where the seccomp profile allows them.
RUN useradd --system --uid 10001 --no-create-home --home-dir /tmp --shell /usr/sbin/nologin playground
USER 10001:10001

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["/opt/tf-playground/venv/bin/python", "-c", "import urllib.request; urllib.request.urlopen('http://localhost:8501/_stcore/health', timeout=8).read()"]
ENTRYPOINT ["/opt/tf-playground/venv/bin/streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]
