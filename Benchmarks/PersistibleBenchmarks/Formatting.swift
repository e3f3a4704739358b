import Foundation

/// Three significant digits: more would suggest a precision that repeated runs do not have.
func threeDigits(_ value: Double) -> String {
    let magnitude = abs(value)
    let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
    return String(format: "%.\(decimals)f", value)
}

func formatDuration(_ seconds: Double) -> String {
    if seconds < 0 { return "−" + formatDuration(-seconds) }
    switch seconds {
    case ..<1e-6: return threeDigits(seconds * 1e9) + " ns"
    case ..<1e-3: return threeDigits(seconds * 1e6) + " µs"
    case ..<1: return threeDigits(seconds * 1e3) + " ms"
    default: return threeDigits(seconds) + " s"
    }
}

/// A power of ten as a time, for an axis: "1 ms" rather than "1.00 ms".
func formatDecadeDuration(_ seconds: Double) -> String {
    let (scaled, unit): (Double, String) = switch seconds {
    case ..<1e-6: (seconds * 1e9, "ns")
    case ..<1e-3: (seconds * 1e6, "µs")
    case ..<1: (seconds * 1e3, "ms")
    default: (seconds, "s")
    }
    return "\(threeDigitsTrimmed(scaled)) \(unit)"
}

func formatRatio(_ value: Double) -> String {
    guard value.isFinite else { return "–" }
    if value >= 0.1 { return String(format: "%.2f×", value) }
    return String(format: "%.2g×", value)
}

func formatCount(_ n: Int) -> String {
    let digits = Array(String(n))
    var result = ""
    for (offset, digit) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return result
}

/// "100k" rather than "100,000" where space is short, as on a chart's axis.
func formatShortCount(_ n: Double) -> String {
    switch n {
    case 1e6...: return threeDigitsTrimmed(n / 1e6) + "M"
    case 1e3...: return threeDigitsTrimmed(n / 1e3) + "k"
    default: return threeDigitsTrimmed(n)
    }
}

private func threeDigitsTrimmed(_ value: Double) -> String {
    // Powers of ten computed with pow and scaled come out a hair off a whole number.
    abs(value - value.rounded()) < 1e-9 * max(1, abs(value)) ? String(Int(value.rounded())) : threeDigits(value)
}
