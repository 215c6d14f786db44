// focus: Focus Island from the command line, on the FocusIslandClient library. `focus --help`
// lists the commands and exit statuses; Runner.swift runs one command line.

import Foundation

let status = await Runner.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
