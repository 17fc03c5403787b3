import CGPIOD
import Glibc
import GPIOClient

/// An open GPIO chip: the one owner of its libgpiod handle, closed in `deinit`.
///
/// With libgpiod 1.x a requested line dies with its chip, so every `LineRequest` keeps its chip
/// alive; the chip closes after the last request is released.
final class GPIOChip {
    let handle: OpaquePointer
    let path: String
    let name: String
    let label: String
    let lineCount: UInt32

    init(path: String) throws(GPIOError) {
        guard let handle = lsgpio_chip_open(path) else {
            throw errnoError(LibgpiodOperation.openChip, path)
        }
        var name = [CChar](repeating: 0, count: 64)
        var label = [CChar](repeating: 0, count: 64)
        var lines: UInt32 = 0
        guard lsgpio_chip_describe(handle, &name, name.count, &label, label.count, &lines) == 0 else {
            let code = errno
            lsgpio_chip_close(handle)
            throw errnoError(LibgpiodOperation.openChip, path, errno: code)
        }
        self.handle = handle
        self.path = path
        self.name = String(cCharBuffer: name)
        self.label = String(cCharBuffer: label)
        self.lineCount = lines
    }

    deinit {
        lsgpio_chip_close(handle)
    }

    /// "gpiochip0 [pinctrl-rp1, 54 lines]", as `gpiodetect` prints it.
    var summary: String { "\(name) [\(label), \(lineCount) lines]" }

    func matches(_ selector: ChipSelector) -> Bool {
        switch selector {
        case .path(let path): path == self.path
        case .name(let name): name == self.name
        case .label(let label): label == self.label
        case .nameOrLabel(let text): text == name || text == label
        }
    }

    /// The offset of a line, looking a name up on this chip.
    func offset(of line: LineSelector) throws(GPIOError) -> UInt32 {
        switch line {
        case .offset(let offset):
            guard offset < lineCount else {
                throw GPIOError(
                    operation: LibgpiodOperation.findLine, target: "\(line) on \(summary)",
                    reason: "the chip has lines 0...\(lineCount &- 1) only")
            }
            return offset
        case .name(let lineName):
            errno = 0
            let offset = lsgpio_chip_line_offset(handle, lineName)
            guard offset >= 0 else {
                let code = errno
                guard code == ENOENT || code == 0 else {
                    throw errnoError(LibgpiodOperation.findLine, "\(line) on \(summary)", errno: code)
                }
                throw GPIOError(
                    operation: LibgpiodOperation.findLine, target: "\(line) on \(summary)",
                    reason: "no line of that name; named lines: \(namedLinesList())",
                    hint: "line names come from the device tree; `gpioinfo` lists them")
            }
            return UInt32(offset)
        }
    }

    struct LineInfo {
        var name: String
        var consumer: String
        var isUsed: Bool
    }

    func lineInfo(offset: UInt32) -> LineInfo? {
        var name = [CChar](repeating: 0, count: 64)
        var consumer = [CChar](repeating: 0, count: 64)
        var used = false
        guard lsgpio_chip_line_describe(handle, offset, &name, name.count, &consumer, consumer.count, &used) == 0 else {
            return nil
        }
        return LineInfo(name: String(cCharBuffer: name), consumer: String(cCharBuffer: consumer), isUsed: used)
    }

    /// "GPIO17 (offset 17 of gpiochip0 [pinctrl-rp1, 54 lines])", for messages.
    func describeLine(offset: UInt32) -> String {
        let name = lineInfo(offset: offset)?.name ?? ""
        return (name.isEmpty ? "line \(offset)" : "\(name) (line \(offset)") + " of \(summary)" + (name.isEmpty ? "" : ")")
    }

    /// The first named lines, enough for a user to see the naming scheme.
    private func namedLinesList(limit: Int = 12) -> String {
        var names: [String] = []
        var offset: UInt32 = 0
        var more = false
        while offset < lineCount {
            if let name = lineInfo(offset: offset)?.name, !name.isEmpty {
                if names.count == limit { more = true; break }
                names.append(name)
            }
            offset += 1
        }
        if names.isEmpty { return "none (use offsets 0...\(lineCount &- 1))" }
        return names.joined(separator: ", ") + (more ? ", ..." : "")
    }
}

extension String {
    init(cCharBuffer buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
