/// Turns a throwing async call into a `Result`, for effect responses that carry one.
extension Result where Failure: Error {
    public init(catching body: () async throws(Failure) -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
