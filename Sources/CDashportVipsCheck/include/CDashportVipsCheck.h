// CDashportVipsCheck has no interface: its one file (vips_abi_check.c) fails to compile when
// CDashportVips' declarations of libvips' functions differ from libvips' own headers.
