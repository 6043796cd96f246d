package dev.toolledger.testkit;

/**
 * Decides when the proxy forwards a request it has read: at once, or later. Holding a request is
 * how a test makes "a request delayed in the network" arrive after something else happened.
 */
@FunctionalInterface
public interface RequestGate {

  /**
   * Called before a request is forwarded; returns when it may go on.
   *
   * @param method the request's method
   * @param target the request target (path and query)
   */
  void admit(String method, String target) throws InterruptedException;

  static RequestGate open() {
    return (method, target) -> {};
  }
}
