// libFuzzer target: a config file, parsed and loaded as lifesignald loads it. Loading must never
// trap, and every refusal must name at least one problem with a position inside the file.
import ConfigFile
import DeviceConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.utf8.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    do {
        _ = try ConfigDocument.parse(text)
    } catch {
        precondition((1...lines).contains(error.line) && error.column >= 1, "syntax error outside the file: \(error)")
    }
    switch DeviceConfiguration.load(text: text, path: "fuzz.toml", environment: ["HOME": "/home/fuzz"]) {
    case .success:
        break
    case let .failure(errors):
        precondition(!errors.problems.isEmpty, "a refusal must name a problem")
    }
    return 0
}
