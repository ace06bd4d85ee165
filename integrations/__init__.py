"""Patch series that make other projects import spec_protocols; see integrations/sglang/README.md."""
