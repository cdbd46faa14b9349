/* Placeholder until the protoc-c output lands (tools/regenerate). */
#include "caapproto.h"
