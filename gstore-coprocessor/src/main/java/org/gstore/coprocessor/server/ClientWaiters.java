package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.gstore.common.protocol.Reply;

/**
 * Clients waiting for the leader's answer to a request, by request id. A retry of a request (same id) waits beside
 * the first call, and both get the one answer the engine gives.
 */
final class ClientWaiters {
  private final Map<String, List<CompletableFuture<Reply>>> waiting = new ConcurrentHashMap<>();

  /** A new wait for the answer to {@code requestId}. */
  CompletableFuture<Reply> await(String requestId) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    waiting.computeIfAbsent(requestId, id -> new CopyOnWriteArrayList<>()).add(reply);
    return reply;
  }

  /** The engine answered: every wait for that request ends with the answer. */
  void answer(Reply reply) {
    List<CompletableFuture<Reply>> list = waiting.remove(reply.requestId());
    if (list != null) {
      list.forEach(f -> f.complete(reply));
    }
  }

  /** The request's step could not be recorded: every wait for it ends with the error. */
  void fail(String requestId, Throwable cause) {
    List<CompletableFuture<Reply>> list = waiting.remove(requestId);
    if (list != null) {
      IOException e = new IOException("G-Store could not record request " + requestId + ": " + cause, cause);
      list.forEach(f -> f.completeExceptionally(e));
    }
  }

  /** The caller gave up on {@code reply}; a retry with the same request id waits anew. */
  void forget(String requestId, CompletableFuture<Reply> reply) {
    List<CompletableFuture<Reply>> list = waiting.get(requestId);
    if (list != null) {
      list.remove(reply);
      if (list.isEmpty()) {
        waiting.remove(requestId, list);
      }
    }
  }

  /** G-Store stops here: every wait ends with {@code why}. */
  void failAll(IOException why) {
    waiting.values().forEach(list -> list.forEach(f -> f.completeExceptionally(why)));
    waiting.clear();
  }
}
