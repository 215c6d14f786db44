// LogTime: the `time` every log line starts with, RFC 3339 in UTC with milliseconds
// (2026-12-05T14:03:07.123Z), from clock_gettime and integer arithmetic: a Foundation date
// formatter per line would cost more than the rest of the line (docs/performance.md measured
// every allocation of a request), and this makes none.
import Glibc

enum LogTime {
    /// The length of a time: 2026-12-05T14:03:07.123Z.
    static let length = 24

    /// Milliseconds since 1970-01-01T00:00:00Z now, from the system's real-time clock.
    static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Appends `milliseconds` since the epoch as RFC 3339 (`length` bytes, UTC, years 0000-9999).
    static func append(_ milliseconds: Int64, to bytes: inout [UInt8]) {
        let (days, millisecondOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let seconds = Int(millisecondOfDay / 1_000)
        digits(Int(year), 4, &bytes)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2, &bytes)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2, &bytes)
        bytes.append(UInt8(ascii: "T"))
        digits(seconds / 3_600, 2, &bytes)
        bytes.append(UInt8(ascii: ":"))
        digits(seconds / 60 % 60, 2, &bytes)
        bytes.append(UInt8(ascii: ":"))
        digits(seconds % 60, 2, &bytes)
        bytes.append(UInt8(ascii: "."))
        digits(Int(millisecondOfDay % 1_000), 3, &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (before it when negative): Howard
    /// Hinnant's civil_from_days, which counts 400-year eras of 146,097 days from 0000-03-01 so
    /// that each leap day falls at the end of its year.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let (era, dayOfEra) = floorDivision(days + 719_468, 146_097)  // 719,468: 0000-03-01 to 1970-01-01
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // from March 1st
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0 is March
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Quotient and remainder rounded toward minus infinity (the remainder is never negative).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// `value` as `count` decimal digits, zero-padded (the rightmost `count` if it has more).
    private static func digits(_ value: Int, _ count: Int, _ bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var value = max(0, value)
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            value %= divisor
            divisor /= 10
        }
    }
}
