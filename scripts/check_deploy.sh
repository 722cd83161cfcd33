#!/usr/bin/env bash
# Checks what deploy/ holds as far as this machine allows (run by .ci/run): the Slurm batch
# script's shell syntax, the Ansible playbook's (tests/schedulers.rs runs it for real), the Kubernetes manifests against Kubernetes' own schemas offline
# (kubernetes-validate, installed here from PyPI when missing; where it cannot be, the line says
# the manifests were NOT validated), and the image script's syntax. The image itself is built by
# deploy/image.sh where a container engine runs; this does not build it.
set -euo pipefail
cd "$(dirname "$0")/.."
for f in deploy/slurm/*.sbatch deploy/image.sh; do bash -n "$f"; done
echo "deploy: shell syntax ok (deploy/slurm, deploy/image.sh)"
if ! command -v kubernetes-validate >/dev/null; then
  python3 -m pip install -q --user kubernetes-validate >/dev/null 2>&1 || true
  export PATH="$HOME/.local/bin:$PATH"
fi
if command -v kubernetes-validate >/dev/null; then
  kubernetes-validate --strict --quiet deploy/kubernetes/*.yaml
  echo "deploy: Kubernetes manifests valid against Kubernetes' schemas (kubernetes-validate --strict)"
else
  echo "deploy: Kubernetes manifests NOT validated: kubernetes-validate could not be installed"
fi
if command -v ansible-playbook >/dev/null; then
  ansible_home="$(mktemp -d)"
  trap 'rm -rf "$ansible_home"' EXIT
  ANSIBLE_HOME="$ansible_home" ansible-playbook --syntax-check -i localhost, deploy/ansible/*.yml >/dev/null 2>&1 \
    || { ansible-playbook --syntax-check -i localhost, deploy/ansible/*.yml; exit 1; }
  echo "deploy: Ansible playbook syntax ok (ansible-playbook --syntax-check)"
else
  echo "deploy: Ansible playbook NOT checked: ansible-playbook is missing (scripts/setup.sh --with-test-tools)"
fi
echo "deploy: the image (deploy/Dockerfile) is not built here: deploy/image.sh builds it"
