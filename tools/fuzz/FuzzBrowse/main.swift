// Empty on purpose. In a plain `swift build` this makes FuzzBrowse a program that does nothing; the
// fuzz build (`--sanitize fuzzer`) compiles the target as a library and links libFuzzer's main,
// which calls `LLVMFuzzerTestOneInput` in FuzzBrowse.swift. Top-level code here would break that build.
