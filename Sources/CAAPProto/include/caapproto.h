/* Umbrella header for the protoc-c output (tools/regenerate replaces the list). */
