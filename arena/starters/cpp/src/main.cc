// Bot __BOT_NAME__: a Schmier Arena bot in C++ (the synchronous gRPC C++ API).
//
// It joins the referee at ARENA_ADDRESS with the seat token in ARENA_TOKEN (again, while
// the referee cannot be reached), answers every decision request with its first legal
// choice, and exits 0 when the match is over
// (docs/PROTOCOL.md §2). The legal lists come in the order docs/PROTOCOL.md guarantees:
// pass first, then the bids from low to high; clubs, diamonds, hearts, spades; cards by
// suit in that order, 2 up to ace, the joker last. Put your strategy in the four Choose*
// functions.
#include <grpcpp/grpcpp.h>

#include <stdlib.h>    // unsetenv (POSIX)
#include <sys/stat.h>  // stat (POSIX)

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "arena/v1/arena.grpc.pb.h"
#include "arena/v1/arena.pb.h"

namespace {

using arena::v1::Answer;
using arena::v1::DecisionRequest;
using arena::v1::DiscardRule;
using arena::v1::LegalChoices;
using arena::v1::View;

constexpr const char* kName = "__BOT_NAME__";
constexpr const char* kVersion = "1";

// --- the strategy: one function per decision kind ------------------------------------
// `view` is everything this seat may know now (its hand, the bids, trump, the tricks);
// `legal` the legal choices.

// R4: 0 to pass, or more than the highest bid so far (3-6). legal.bids(0) is 0.
uint32_t ChooseBid(const View& view, const LegalChoices& legal) {
  // Strategy goes here: judge view.hand() for each suit as trump and bid what your team
  // can make (R6.1: High, Low, the two bauers, the joker, Game).
  return legal.bids(0);
}

// R5.1: you won the bidding (view.contract()); name one of the four suits.
arena::v1::Suit ChooseTrump(const View& view, const LegalChoices& legal) {
  // Strategy goes here: the suit you hold most trumps of (the left bauer and the joker
  // are trumps too, R2.4).
  return legal.suits(0);
}

// R5.2-R5.4: a discard D is legal when must <= D <= may and min_count <= |D| <= max_count.
// As the dealer (rule.dealer()) you have picked up the stock (view.own_received()) and
// discard back to six cards.
void ChooseDiscard(const View& view, const DiscardRule& rule, arena::v1::CardList* out) {
  // Strategy goes here: which cards of rule.may() to let go. This is the smallest legal
  // discard: all of must, then the first cards of may up to min_count.
  for (const std::string& card : rule.must()) out->add_cards(card);
  for (const std::string& card : rule.may()) {
    if (static_cast<uint32_t>(out->cards_size()) >= rule.min_count()) break;
    const auto& chosen = out->cards();
    if (std::find(chosen.begin(), chosen.end(), card) == chosen.end()) out->add_cards(card);
  }
}

// R7: the cards you may play (you must follow the suit led when you can; a led left
// bauer or joker calls for trump, R2.4). view.current_trick(): its leader and the cards
// played so far (none: you lead).
std::string ChoosePlay(const View& view, const LegalChoices& legal) {
  // Strategy goes here: which card wins the trick, and which one to keep.
  return legal.cards(0);
}

Answer Decide(const DecisionRequest& request) {
  Answer answer;
  answer.set_request_id(request.id());
  const View& view = request.view();
  const LegalChoices& legal = request.legal();
  switch (request.kind()) {
    case arena::v1::DECISION_KIND_BID:
      answer.set_bid(ChooseBid(view, legal));
      break;
    case arena::v1::DECISION_KIND_TRUMP:
      answer.set_trump(ChooseTrump(view, legal));
      break;
    case arena::v1::DECISION_KIND_DISCARD:
      ChooseDiscard(view, legal.discard(), answer.mutable_discard());
      break;
    case arena::v1::DECISION_KIND_PLAY:
      answer.set_card(ChoosePlay(view, legal));
      break;
    default:
      break;
  }
  return answer;
}

// --- the contract: join, answer each request, end on match_over ----------------------

// What one stream came to: the match over, the referee unreachable before it read the
// join (try again), or a failure.
enum class Ended { kOver, kUnreached, kFailed, kBroken };

Ended Play(const std::string& address, const std::string& token) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = arena::v1::Referee::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->Play(&context);

  arena::v1::BotMessage join_message;
  auto* join = join_message.mutable_join();
  join->set_token(token);
  join->set_bot_name(kName);
  join->set_bot_version(kVersion);
  join->set_protocol_version(arena::v1::PROTOCOL_VERSION_1);
  bool writable = stream->Write(join_message);

  arena::v1::RefereeMessage message;
  bool over = false;
  bool heard = false;  // the referee has answered, so it read the join
  while (writable && !over && stream->Read(&message)) {
    heard = true;
    // message.events(): what happened since the last message (R10); this bot reads the view.
    switch (message.body_case()) {
      case arena::v1::RefereeMessage::kRequest: {
        arena::v1::BotMessage reply;
        *reply.mutable_answer() = Decide(message.request());
        writable = stream->Write(reply);
        break;
      }
      case arena::v1::RefereeMessage::kNotice: {
        const auto& notice = message.notice();
        std::cerr << "[" << kName << "] fault " << notice.kind() << ": " << notice.reason()
                  << " (played " << notice.fallback() << ")" << std::endl;
        break;
      }
      case arena::v1::RefereeMessage::kMatchOver:
        over = true;
        break;
      default:
        break;  // the welcome, or events only
    }
  }
  stream->WritesDone();
  while (stream->Read(&message)) {
  }
  const grpc::Status status = stream->Finish();
  if (over) return Ended::kOver;
  const bool unavailable = status.error_code() == grpc::StatusCode::UNAVAILABLE;
  if (unavailable && !heard) return Ended::kUnreached;
  std::cerr << "[" << kName << "] the stream ended before the match was over: "
            << status.error_code() << " " << status.error_message() << std::endl;
  return unavailable ? Ended::kBroken : Ended::kFailed;
}

// A unix socket's file gone means the seat is gone (its match is over): no use trying.
bool SocketGone(const std::string& address) {
  const std::string unix_prefix = "unix:";
  if (address.rfind(unix_prefix, 0) != 0) return false;
  struct stat info;
  return stat(address.substr(unix_prefix.size()).c_str(), &info) != 0;
}

int Run(const std::string& address, const std::string& token) {
  auto pause = std::chrono::milliseconds(50);
  for (;;) {
    switch (Play(address, token)) {
      case Ended::kOver:
        return 0;
      case Ended::kFailed:
        return 1;
      case Ended::kBroken:
        return 2;
      case Ended::kUnreached:
        break;
    }
    // The referee could not be reached yet (a machine too busy to serve this bot): join
    // again with the same token until it answers. Only its own refusal (the seat's
    // deadline passed: DEADLINE_EXCEEDED) ends the attempts (docs/PROTOCOL.md §2).
    if (SocketGone(address)) {
      std::cerr << "[" << kName << "] cannot reach the referee at " << address << std::endl;
      return 2;
    }
    if (pause == std::chrono::milliseconds(50)) {
      std::cerr << "[" << kName << "] cannot reach the referee yet; trying again" << std::endl;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(2 * pause, std::chrono::milliseconds(1000));
  }
}

}  // namespace

int main() {
  // The arena's own gRPC settings may reach bots (GRPC_EXPERIMENTS); this gRPC C++ may not
  // know those experiments and would log an error line for each.
  unsetenv("GRPC_EXPERIMENTS");
  const char* address = std::getenv("ARENA_ADDRESS");
  const char* token = std::getenv("ARENA_TOKEN");
  if (address == nullptr || token == nullptr) {
    std::cerr << "[" << kName << "] ARENA_ADDRESS and ARENA_TOKEN must be set" << std::endl;
    return 2;
  }
  return Run(address, token);
}
