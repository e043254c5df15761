// The `strata` command-line tool. Exit codes: 0 success, 1 failure, 2 usage error.
import Foundation

exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), undecodable: CommandLineTool.undecodableArguments()))
