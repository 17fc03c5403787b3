import Glibc
import GPIOClient
import LinuxIO

/// Finds GPIO chips under `/dev` by path, name or label.
///
/// libgpiod 2.x dropped 1.x's chip iterator and lookup helpers, so both versions use this.
struct ChipDirectory {
    var directory = "/dev"

    /// `/dev/gpiochipN` paths, in chip-number order.
    func chipPaths() -> [String] {
        gpioChipPaths(in: directory)
    }

    /// Opens the chip the selector names; a missing chip's error lists the chips that exist.
    func open(_ selector: ChipSelector) throws(GPIOError) -> GPIOChip {
        if case .path(let path) = selector {
            guard access(path, F_OK) == 0 else { throw missing(selector, present: survey()) }
            return try GPIOChip(path: path)
        }
        var present: [String] = []
        var refused: GPIOError?
        for path in chipPaths() {
            do throws(GPIOError) {
                let chip = try GPIOChip(path: path)
                if chip.matches(selector) { return chip }
                present.append(chip.summary)
            } catch {
                // A chip we may not open could be the one asked for: report that, not "missing".
                if refused == nil, error.hint != nil { refused = error }
                present.append("\(path) (\(error.reason))")
            }
        }
        if let refused { throw refused }
        throw missing(selector, present: present)
    }

    /// What `gpiodetect` would list, for a message.
    private func survey() -> [String] {
        chipPaths().map { path in
            do throws(GPIOError) { return try GPIOChip(path: path).summary } catch { return "\(path) (\(error.reason))" }
        }
    }

    private func missing(_ selector: ChipSelector, present: [String]) -> GPIOError {
        GPIOError(
            operation: LibgpiodOperation.findChip, target: "\(selector)",
            reason: present.isEmpty
                ? "no GPIO chips present (nothing matches \(directory)/gpiochip*)"
                : "no such chip; chips present: " + present.joined(separator: "; "),
            hint: "set [gpio] chip to one of these; a label stays the same across kernels, a number may not")
    }
}
