// libusb-1.0 (Debian: libusb-1.0-0-dev), wrapped by DashportUSBHost; no libusb type leaves it.
#ifndef CDASHPORT_USB_SHIM_H
#define CDASHPORT_USB_SHIM_H
#include <libusb-1.0/libusb.h>
#endif
