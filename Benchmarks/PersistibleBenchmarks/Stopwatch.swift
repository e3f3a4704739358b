/// Times one call on the monotonic clock, which wall-clock adjustments cannot skew.
enum Stopwatch {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        try ContinuousClock().measure(body).seconds
    }
}

extension Duration {
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) * 1e-18
    }
}
