# Bot __BOT_NAME__: a Schmier Arena bot in Ruby (Debian's ruby-grpc).
#
# It joins the referee at ARENA_ADDRESS with the seat token in ARENA_TOKEN (again, while
# the referee cannot be reached), answers every decision request with its first legal
# choice, and exits 0 when the match is over
# (docs/PROTOCOL.md §2). Its build generates gen/ from the contract copied here
# (proto/arena/v1/arena.proto). The legal lists come in the order docs/PROTOCOL.md
# guarantees: pass first, then the bids from low to high; clubs, diamonds, hearts,
# spades; cards by suit in that order, 2 up to ace, the joker last. Put your strategy in
# the four choose_* methods.

# The arena's own gRPC settings may reach bots; this gRPC may not know its experiments.
ENV.delete('GRPC_EXPERIMENTS')
$LOAD_PATH.unshift(File.join(__dir__, 'gen'))
require 'grpc'
require 'arena/v1/arena_services_pb'

BOT_NAME = '__BOT_NAME__'
BOT_VERSION = '1'

def log(message)
  $stderr.puts("[#{BOT_NAME}] #{message}")
end

# --- the strategy: one method per decision kind ----------------------------------------
# `view` is everything this seat may know now (its hand, the bids, trump, the tricks:
# Arena::V1::View); `legal` the legal choices (Arena::V1::LegalChoices).

# R4: 0 to pass, or more than the highest bid so far (3-6). legal.bids[0] is 0.
def choose_bid(view, legal)
  # Strategy goes here: judge view.hand for each suit as trump and bid what your team
  # can make (R6.1: High, Low, the two bauers, the joker, Game).
  legal.bids[0]
end

# R5.1: you won the bidding (view.contract); name one of the four suits.
def choose_trump(view, legal)
  # Strategy goes here: the suit you hold most trumps of (the left bauer and the joker
  # are trumps too, R2.4).
  legal.suits[0]
end

# R5.2-R5.4: a discard D is legal when must <= D <= may and min_count <= |D| <= max_count.
# As the dealer (rule.dealer) you have picked up the stock (view.own_received) and
# discard back to six cards.
def choose_discard(view, rule)
  # Strategy goes here: which cards of rule.may to let go. This is the smallest legal
  # discard: all of must, then the first cards of may up to min_count.
  cards = rule.must.to_a
  rule.may.each do |card|
    break if cards.size >= rule.min_count
    cards << card unless cards.include?(card)
  end
  cards
end

# R7: the cards you may play (you must follow the suit led when you can; a led left
# bauer or joker calls for trump, R2.4). view.current_trick: its leader and the cards
# played so far (none: you lead).
def choose_play(view, legal)
  # Strategy goes here: which card wins the trick, and which one to keep.
  legal.cards[0]
end

def answer_for(request)
  view = request.view
  legal = request.legal
  answer = Arena::V1::Answer.new(request_id: request.id)
  case request.kind
  when :DECISION_KIND_BID then answer.bid = choose_bid(view, legal)
  when :DECISION_KIND_TRUMP then answer.trump = choose_trump(view, legal)
  when :DECISION_KIND_DISCARD
    answer.discard = Arena::V1::CardList.new(cards: choose_discard(view, legal.discard))
  when :DECISION_KIND_PLAY then answer.card = choose_play(view, legal)
  else return nil
  end
  answer
end

# --- the contract: join, answer each request, end on match_over ------------------------

# A unix socket's file gone means the seat is gone (its match is over): no use trying.
def socket_gone?(address)
  address.start_with?('unix:') && !File.exist?(address.delete_prefix('unix:'))
end

# One stream: the join, then one answer per request, until the match is over. Returns
# whether the match ended; raises GRPC::Unavailable, tagged with whether the referee had
# answered, when the connection failed.
def play(address, token)
  stub = Arena::V1::Referee::Stub.new(address, :this_channel_is_insecure)
  outbox = Queue.new
  done = Object.new
  messages = Enumerator.new do |out|
    loop do
      message = outbox.pop
      break if message.equal?(done)
      out << message
    end
  end
  outbox << Arena::V1::BotMessage.new(
    join: Arena::V1::Join.new(
      token: token, bot_name: BOT_NAME, bot_version: BOT_VERSION,
      protocol_version: :PROTOCOL_VERSION_1
    )
  )
  heard = false # the referee has answered, so it read the join
  begin
    stub.play(messages).each do |message|
      heard = true
      # message.events: what happened since the last message (R10); this bot reads the view.
      case message.body
      when :request
        answer = answer_for(message.request)
        if answer.nil?
          log("cannot answer a request of kind #{message.request.kind}")
        else
          outbox << Arena::V1::BotMessage.new(answer: answer)
        end
      when :notice
        n = message.notice
        log("fault #{n.kind}: #{n.reason} (played #{n.fallback})")
      when :match_over
        outbox << done
        return true
      end
    end
  rescue GRPC::Unavailable => e
    outbox << done
    raise e if heard

    return nil # never reached the referee: the caller joins again
  end
  false
end

def main
  address = ENV['ARENA_ADDRESS']
  token = ENV['ARENA_TOKEN']
  if address.to_s.empty? || token.to_s.empty?
    log('ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them)')
    exit(2)
  end
  pause = 0.05
  begin
    loop do
      over = play(address, token)
      exit(over ? 0 : 1) unless over.nil?
      # The referee could not be reached yet (a machine too busy to serve this bot): join
      # again with the same token until it answers. Only its own refusal (the seat's
      # deadline passed: DEADLINE_EXCEEDED) ends the attempts (docs/PROTOCOL.md §2).
      raise GRPC::Unavailable, 'the seat is gone' if socket_gone?(address)

      log('cannot reach the referee yet; trying again') if pause == 0.05
      sleep(pause)
      pause = [2 * pause, 1.0].min
    end
  rescue GRPC::BadStatus => e
    log("the stream failed: #{e.class.name.split('::').last}: #{e.details}")
    exit(e.is_a?(GRPC::Unavailable) ? 2 : 1)
  end
end

main
