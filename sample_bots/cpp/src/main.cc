// Sample bot `cpp`: joins the referee named by ARENA_ADDRESS with the seat token in
// ARENA_TOKEN over the synchronous gRPC C++ API, and answers every decision request
// (the contract: proto/arena/v1/arena.proto) until the match is over.
//
// Exit status: 0 after MatchOver; 2 if the referee refused or could not be reached
// (one line on stderr with the status code and message); 1 for any other early end.
#include <grpcpp/grpcpp.h>

#include <stdlib.h>  // unsetenv (POSIX)

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "arena/v1/arena.grpc.pb.h"
#include "arena/v1/arena.pb.h"
#include "strategy.h"

namespace {

constexpr const char* kName = "cpp";
constexpr const char* kVersion = "1";

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "UNKNOWN";
  }
}

// One line on stderr, then the exit status.
int Fail(int status, const std::string& line) {
  std::cerr << "[" << kName << "] " << line << std::endl;
  return status;
}

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

int Run(const std::string& address, const std::string& token) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = arena::v1::Referee::NewStub(channel);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<arena::v1::BotMessage, arena::v1::RefereeMessage>>
      stream = stub->Play(&context);

  arena::v1::BotMessage join_message;
  auto* join = join_message.mutable_join();
  join->set_token(token);
  join->set_bot_name(kName);
  join->set_bot_version(kVersion);
  join->set_protocol_version(arena::v1::PROTOCOL_VERSION_1);
  bool writable = stream->Write(join_message);  // false: the stream is already over

  arena::v1::RefereeMessage message;
  bool received = false;  // any message at all: the join was accepted
  bool over = false;
  std::string reason;
  while (writable && stream->Read(&message)) {
    received = true;
    switch (message.body_case()) {
      case arena::v1::RefereeMessage::kRequest: {
        arena::v1::BotMessage reply;
        *reply.mutable_answer() = cppbot::Decide(message.request());
        writable = stream->Write(reply);
        break;
      }
      case arena::v1::RefereeMessage::kNotice: {
        const auto& notice = message.notice();
        std::cerr << "[" << kName << "] fault " << notice.kind() << ": " << notice.reason()
                  << " (request " << notice.request_id() << ", played "
                  << (notice.fallback().empty() ? "nothing" : notice.fallback()) << ")"
                  << std::endl;
        break;
      }
      case arena::v1::RefereeMessage::kWelcome: {
        const auto& welcome = message.welcome();
        std::cerr << "[" << kName << "] seat " << welcome.seat() << " of match "
                  << welcome.match_id() << ", " << welcome.games() << " game(s)" << std::endl;
        break;
      }
      case arena::v1::RefereeMessage::kMatchOver:
        over = true;
        reason = message.match_over().reason();
        break;
      default:
        break;  // events only
    }
    if (over) break;
  }

  // Close our side, read whatever is left until the referee ends the call, then
  // collect its status.
  stream->WritesDone();
  while (stream->Read(&message)) {
  }
  const grpc::Status status = stream->Finish();

  if (over) {
    std::cerr << "[" << kName << "] match over: " << reason << std::endl;
    return 0;
  }
  const std::string code_and_message =
      std::string(CodeName(status.error_code())) + ": " + status.error_message();
  if (!status.ok() && status.error_code() == grpc::StatusCode::UNAVAILABLE && !received) {
    return Fail(2, "cannot reach the referee at " + address + ": " + code_and_message);
  }
  if (!status.ok()) {
    return Fail(2, "the referee refused this bot: " + code_and_message);
  }
  if (!received) {
    return Fail(2, "the referee refused this bot: OK: the stream ended before the welcome");
  }
  return Fail(1, "the referee closed the stream before the match was over");
}

}  // namespace

int main() {
  // The arena sets GRPC_EXPERIMENTS for its own (Python) gRPC, and bots inherit it; this
  // gRPC C++ may not know those experiment names and would log an error line for each.
  // None of them concerns this bot, so it drops the variable before gRPC reads it.
  unsetenv("GRPC_EXPERIMENTS");
  const std::string address = Env("ARENA_ADDRESS");
  const std::string token = Env("ARENA_TOKEN");
  if (address.empty() || token.empty()) {
    return Fail(2, "ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them)");
  }
  return Run(address, token);
}
