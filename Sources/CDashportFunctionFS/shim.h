// The kernel's FunctionFS and USB chapter 9 definitions (linux-libc-dev): descriptor and strings
// magics, the descriptor flags and the ep0 event types the gadget transport reads.
#ifndef CDASHPORT_FUNCTIONFS_SHIM_H
#define CDASHPORT_FUNCTIONFS_SHIM_H
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>
#endif
