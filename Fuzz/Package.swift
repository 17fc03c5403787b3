// swift-tools-version:6.1
// libFuzzer targets for the device's input decoders. A package of its own because a fuzz target has
// no `main` (libFuzzer brings it) and must be compiled with `-parse-as-library`, which the main
// package's executables cannot be. Build and run with `scripts/fuzz`.
import PackageDescription

let fuzzTarget: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "lifesignal-fuzz",
    dependencies: [.package(name: "lifesignal-device", path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzControlProtocol",
            dependencies: [.product(name: "ControlProtocol", package: "lifesignal-device")],
            swiftSettings: fuzzTarget
        ),
        .executableTarget(
            name: "FuzzConfig",
            dependencies: [.product(name: "DeviceConfig", package: "lifesignal-device")],
            swiftSettings: fuzzTarget
        ),
    ]
)
