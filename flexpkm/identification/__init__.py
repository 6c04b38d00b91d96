"""Base dynamic parameters and identification of rigid parallel robots
(Briot & Khalil Section 8.7, Eqs. (8.231)-(8.279); Gautier 1991, Khalil
and Dombre 2002): the IDM linear in the standard parameters
(:mod:`~flexpkm.identification.standard`, :mod:`~flexpkm.identification.regressor`),
the base parameters by QR (:mod:`~flexpkm.identification.base`), their
weighted least-squares identification from a measured trajectory
(:mod:`~flexpkm.identification.identify`, :mod:`~flexpkm.identification.data`)
and exciting trajectories (:mod:`~flexpkm.identification.exciting`).
docs/identification.md."""
