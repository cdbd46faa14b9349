import CDashportUSB
import Foundation
import Synchronization

/// How many devices arrived or left since the process started, as libusb's hotplug callback saw.
private let hotplugEvents = Atomic<Int>(0)

private let hotplugCallback: libusb_hotplug_callback_fn = { _, _, _, _ in
    hotplugEvents.add(1, ordering: .relaxed)
    return 0  // stay registered
}

/// Wakes a waiting scan when a device arrives or leaves. libusb delivers hotplug events only
/// while udevd runs (without it the callback registers but never fires, usb-e2e.md), so this
/// exists only then; otherwise the bus is polled.
final class LibUSBHotplug: Sendable {
    let context: LibUSBContext

    /// nil when udevd is not running or libusb has no hotplug support.
    init?() {
        guard FileManager.default.fileExists(atPath: "/run/udev/control"),
            libusb_has_capability(UInt32(LIBUSB_CAP_HAS_HOTPLUG.rawValue)) != 0,
            let context = try? LibUSBContext()
        else { return nil }
        let events = Int32(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED.rawValue | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT.rawValue)
        var handle: libusb_hotplug_callback_handle = 0
        let result = libusb_hotplug_register_callback(
            context.pointer, events, 0, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
            hotplugCallback, nil, &handle)
        guard result == 0 else {
            context.close()
            return nil
        }
        self.context = context
    }

    /// Waits up to `timeout` for a device to arrive or leave; true if one did.
    func wait(_ timeout: Duration) -> Bool {
        let before = hotplugEvents.load(ordering: .relaxed)
        let milliseconds = Int(timeout.milliseconds)
        var limit = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        _ = libusb_handle_events_timeout_completed(context.pointer, &limit, nil)
        return hotplugEvents.load(ordering: .relaxed) != before
    }
}
