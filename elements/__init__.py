"""Body models of flexpkm: rigid bodies, Euler-Bernoulli beams and general
Rayleigh-Ritz shape-function bodies, with one common interface
(:class:`elements.base.Body`) and the generalized Newton-Euler model of
Briot & Khalil Section 10.2 (:mod:`elements.newton_euler`)."""
