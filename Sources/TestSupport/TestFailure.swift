/// A test's own set-up went wrong (a directory that cannot be made, a file that cannot be read):
/// thrown, so the test fails saying what, instead of carrying on with something it did not get.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
