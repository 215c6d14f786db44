// Time and Date: the API writes RFC 3339 in UTC with microseconds (2026-11-30T08:00:00.000000Z)
// and reads any RFC 3339 time with an offset.
import Foundation

extension Time {
    /// The time as a Date (nil only if the server wrote something that is not RFC 3339).
    public var date: Date? {
        let text = rawValue
        guard text.count >= 20 else { return nil }
        // Whole seconds by ISO8601DateFormatter, the fraction by hand (any number of digits).
        var whole = text
        var fraction = 0.0
        if let dot = text.firstIndex(of: ".") {
            let digitsEnd = text[dot...].dropFirst().firstIndex { !$0.isNumber } ?? text.endIndex
            fraction = Double("0" + text[dot..<digitsEnd]) ?? 0
            whole = String(text[..<dot] + text[digitsEnd...])
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: whole).map { $0.addingTimeInterval(fraction) }
    }

    /// A time written as the API writes them: UTC with microseconds.
    public init(_ date: Date) {
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (seconds, remainder) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        let (whole, micros) = remainder < 0 ? (seconds - 1, remainder + 1_000_000) : (seconds, remainder)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(whole)))
        let digits = String(micros)
        self.init(rawValue: text.dropLast() + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z")
    }
}
