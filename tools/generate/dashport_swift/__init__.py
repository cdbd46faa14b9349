"""The Swift wrapper generator behind tools/generate/protoc-gen-dashport-swift."""
