import DeviceConfig
import Glibc
import LinuxIO

/// Doctor's look at the GPIO chip through the kernel's GPIO character device (no libgpiod needed):
/// the chip exists, this user can open it, the service's group can, and the configured lines exist
/// and are free (or held by lifesignald itself).
enum GPIOChipProbe {
    struct ChipInfo: Hashable {
        var path: String
        var name: String
        var label: String
        var lineCount: Int
    }

    struct LineInfo: Hashable {
        var offset: Int
        var name: String
        var consumer: String
        var used: Bool
    }

    static func check(_ configuration: DeviceConfiguration) -> [DoctorFinding] {
        guard configuration.gpio.backend == .libgpiod else {
            return [.ok("gpio", "simulated GPIO: no chip needed (set [gpio] backend = \"libgpiod\" for real hardware)")]
        }
        let wanted = configuration.gpio.chip
        guard let path = resolveChip(wanted) else {
            let present = chipPaths().map { describe($0) }.joined(separator: "; ")
            return [.problem("gpio chip", "no GPIO chip matches [gpio] chip = \"\(wanted)\"",
                             fix: present.isEmpty
                                ? "this kernel shows no /dev/gpiochip*: enable the GPIO character device (CONFIG_GPIO_CDEV) or check the board"
                                : "set [gpio] chip to one of: \(present)")]
        }
        var findings: [DoctorFinding] = []
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFCHR else {
            return [.problem("gpio chip", "\(path) is not a character device", fix: "set [gpio] chip to a /dev/gpiochipN device")]
        }
        let group = groupName(status.st_gid) ?? "\(status.st_gid)"
        let mode = status.st_mode & 0o777
        if group != "gpio" || mode & 0o060 != 0o060 {
            findings.append(.problem("gpio chip access", "\(path) is group \(group), mode \(String(mode, radix: 8)): group gpio cannot read and write it",
                                     fix: "install the udev rule (60-lifesignal-gpio.rules) and run: sudo udevadm trigger --subsystem-match=gpio"))
        }
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            findings.append(.problem("gpio chip", "cannot open \(path): \(errnoText(code))",
                                     fix: code == EACCES ? "run doctor as root, or add this user to group gpio" : "check the board and kernel"))
            return findings
        }
        defer { close(descriptor) }
        guard let chip = chipInfo(descriptor, path: path) else {
            findings.append(.problem("gpio chip", "\(path) does not answer the GPIO chip-info request: \(errnoText(errno))",
                                     fix: "check that \(path) is a GPIO chip"))
            return findings
        }
        findings.append(.ok("gpio chip", "\(path) (\(chip.name), \"\(chip.label)\", \(chip.lineCount) lines), group \(group) mode \(String(mode, radix: 8))"))
        let lines = (0..<chip.lineCount).compactMap { lineInfo(descriptor, offset: $0) }
        var roles: [(String, GPIOLine)] = [("button", configuration.button.line)]
        roles += configuration.leds.map { ("\($0.led.name) LED", $0.line) }
        for (role, line) in roles {
            findings.append(lineFinding(role: role, line: line, lines: lines, chip: chip))
        }
        return findings
    }

    static func lineFinding(role: String, line: GPIOLine, lines: [LineInfo], chip: ChipInfo) -> DoctorFinding {
        let check = "gpio line"
        let found: LineInfo?
        switch line {
        case let .name(name): found = lines.first { $0.name == name }
        case let .offset(offset): found = lines.first { $0.offset == offset }
        }
        guard let found else {
            return .problem(check, "\(role): \(line) is not a line of \(chip.path)",
                            fix: "run `gpioinfo \(chip.name)` to see the line names, then fix the line in the config, or choose another [gpio] chip")
        }
        let label = "\(role): \(line) = offset \(found.offset)"
        guard found.used else { return .ok(check, "\(label), free") }
        if found.consumer.contains("lifesignal") { return .ok(check, "\(label), held by lifesignald") }
        return .problem(check, "\(label) is in use by \"\(found.consumer.isEmpty ? "the kernel" : found.consumer)\"",
                        fix: "free the line (a device-tree overlay such as gpio-led or w1-gpio, or another program) or wire the \(role) to another line")
    }

    /// `[gpio] chip` as a device path: a path, a name ("gpiochip0") or a label ("pinctrl-bcm2711").
    static func resolveChip(_ wanted: String) -> String? {
        if wanted.hasPrefix("/") { return access(wanted, F_OK) == 0 ? wanted : nil }
        let byName = "/dev/\(wanted)"
        if wanted.hasPrefix("gpiochip"), access(byName, F_OK) == 0 { return byName }
        for path in chipPaths() {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            if let info = chipInfo(descriptor, path: path), info.label == wanted { return path }
        }
        return nil
    }

    static func chipPaths() -> [String] {
        gpioChipPaths()
    }

    static func describe(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return path }
        defer { close(descriptor) }
        guard let info = chipInfo(descriptor, path: path) else { return path }
        return "\(info.name) (\"\(info.label)\", \(info.lineCount) lines)"
    }

    // MARK: The GPIO character device ABI (linux/gpio.h)

    /// GPIO_GET_CHIPINFO_IOCTL = _IOR(0xB4, 0x01, struct gpiochip_info): name[32], label[32], lines (u32).
    static let chipInfoRequest: UInt = 0x8044_B401
    /// GPIO_V2_GET_LINEINFO_IOCTL = _IOWR(0xB4, 0x05, struct gpio_v2_line_info), 256 bytes: name[32],
    /// consumer[32], offset (u32), num_attrs (u32), flags (u64), attrs[10] (16 bytes each), padding[4].
    static let lineInfoRequest: UInt = 0xC100_B405
    /// GPIO_V2_LINE_FLAG_USED: the line is requested by someone (a process or a kernel driver).
    static let lineFlagUsed: UInt64 = 1 << 0

    static func chipInfo(_ descriptor: Int32, path: String) -> ChipInfo? {
        var buffer = [UInt8](repeating: 0, count: 68)
        // The buffers are never empty, so baseAddress is never nil.
        let result = buffer.withUnsafeMutableBytes { ioctl(descriptor, chipInfoRequest, $0.baseAddress!) }
        guard result == 0 else { return nil }
        return ChipInfo(path: path, name: cString(buffer[0..<32]), label: cString(buffer[32..<64]),
                        lineCount: Int(littleOrNative32(buffer, at: 64)))
    }

    static func lineInfo(_ descriptor: Int32, offset: Int) -> LineInfo? {
        var buffer = [UInt8](repeating: 0, count: 256)
        withUnsafeBytes(of: UInt32(offset)) { buffer.replaceSubrange(64..<68, with: $0) }
        let result = buffer.withUnsafeMutableBytes { ioctl(descriptor, lineInfoRequest, $0.baseAddress!) }
        guard result == 0 else { return nil }
        let flags = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 72, as: UInt64.self) }
        return LineInfo(offset: offset, name: cString(buffer[0..<32]), consumer: cString(buffer[32..<64]),
                        used: flags & lineFlagUsed != 0)
    }

    static func cString(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    static func littleOrNative32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
    }
}

func groupName(_ gid: gid_t) -> String? {
    guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return nil }
    return String(cString: name)
}
