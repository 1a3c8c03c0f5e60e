// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Owned} from "./Owned.sol";
import {IToken} from "./IToken.sol";
import {AeraLikeVault} from "./AeraLikeVault.sol";
import {PriceAndFeeCalculator} from "./PriceAndFeeCalculator.sol";

/// @title AeraLikeProvisionerBase
/// @notice What both provisioner versions share: a single-token (numeraire) gateway to one
/// AeraLikeVault. Sync `deposit` enters at the calculator's price at once. Async requests escrow
/// here (tokens for deposits, units for redeems) until the solver solves them before their
/// deadline (the vault's Enter/Exit is emitted in the same transaction) or anyone refunds them
/// after it. Solved and refunded events carry only the hash; amounts come from the request.
/// Solver tips come out of the request: paid to the solver on deposits, kept by the vault on
/// redeems (the receiver gets tokensOut − tip), so Enter/Exit always show what moved.
/// The versions differ only in their request events (v2 adds `receiver`) and v2's sync redeem.
abstract contract AeraLikeProvisionerBase is Owned {
    event DepositSolved(bytes32 indexed depositHash);
    event RedeemSolved(bytes32 indexed redeemHash);
    event DepositRefunded(bytes32 indexed depositHash);
    event RedeemRefunded(bytes32 indexed redeemHash);
    event Deposited(address indexed user, address indexed token, uint256 tokensIn, uint256 unitsOut, bytes32 depositHash);

    /// @dev `tokens` is tokensIn (deposit) or minTokensOut (redeem); `units` is minUnitsOut or unitsIn.
    struct Request {
        address user;
        address receiver;
        address token;
        uint256 tokens;
        uint256 units;
        uint256 solverTip;
        uint256 deadline;
        uint256 maxPriceAge;
        bool isFixedPrice;
        bool isDeposit;
    }

    /// @notice Sync deposits and redeems refuse a unit price older than this.
    uint256 public constant SYNC_MAX_PRICE_AGE = 1 days;

    AeraLikeVault public immutable vault;
    PriceAndFeeCalculator public immutable calculator;
    address public immutable token;
    address public immutable solver;

    mapping(bytes32 => Request) internal _requests;
    /// @notice Mixed into every hash so two identical requests still get distinct hashes.
    uint256 public nonce;

    constructor(address owner_, AeraLikeVault vault_, PriceAndFeeCalculator calculator_, address token_, address solver_)
        Owned(owner_)
    {
        vault = vault_;
        calculator = calculator_;
        token = token_;
        solver = solver_;
    }

    function getRequest(bytes32 hash) external view returns (Request memory) {
        return _requests[hash];
    }

    // ---- sync ----

    function deposit(address token_, uint256 tokensIn, uint256 minUnitsOut) external returns (uint256 unitsOut) {
        require(token_ == token, "unsupported token");
        _requireFreshPrice(SYNC_MAX_PRICE_AGE);
        unitsOut = calculator.convertNumeraireToUnits(address(vault), tokensIn);
        require(unitsOut != 0 && unitsOut >= minUnitsOut, "slippage");
        vault.enter(msg.sender, token_, tokensIn, unitsOut, msg.sender);
        bytes32 depositHash = keccak256(abi.encode(block.chainid, address(this), msg.sender, tokensIn, unitsOut, nonce++));
        emit Deposited(msg.sender, token_, tokensIn, unitsOut, depositHash);
    }

    // ---- solver ----

    function solveDeposit(bytes32 hash) external {
        Request memory r = _take(hash, true);
        require(block.timestamp <= r.deadline, "request expired");
        _requireFreshPrice(r.maxPriceAge);
        uint256 tokens = r.tokens - r.solverTip;
        uint256 units = r.isFixedPrice ? r.units : calculator.convertNumeraireToUnits(address(vault), tokens);
        require(units != 0 && units >= r.units, "slippage");
        if (r.solverTip != 0) require(IToken(r.token).transfer(msg.sender, r.solverTip), "transfer failed");
        require(IToken(r.token).approve(address(vault), tokens), "approve failed");
        vault.enter(address(this), r.token, tokens, units, r.receiver);
        emit DepositSolved(hash);
    }

    function solveRedeem(bytes32 hash) external {
        Request memory r = _take(hash, false);
        require(block.timestamp <= r.deadline, "request expired");
        _requireFreshPrice(r.maxPriceAge);
        uint256 tokensOut = r.isFixedPrice ? r.tokens : calculator.convertUnitsToNumeraire(address(vault), r.units);
        require(tokensOut >= r.tokens && tokensOut > r.solverTip, "slippage");
        vault.exit(address(this), r.token, tokensOut - r.solverTip, r.units, r.receiver);
        emit RedeemSolved(hash);
    }

    // ---- refunds: anyone, once the deadline has passed ----

    function refundDeposit(bytes32 hash) external {
        Request memory r = _takeExpired(hash, true);
        require(IToken(r.token).transfer(r.user, r.tokens), "transfer failed");
        emit DepositRefunded(hash);
    }

    function refundRedeem(bytes32 hash) external {
        Request memory r = _takeExpired(hash, false);
        require(vault.transfer(r.user, r.units), "transfer failed");
        emit RedeemRefunded(hash);
    }

    // ---- internals for the versions ----

    /// @dev Escrows the tokens and stores the request; the caller emits its version's event.
    function _requestDeposit(Request memory r) internal returns (bytes32 hash) {
        require(r.token == token, "unsupported token");
        require(r.tokens > r.solverTip, "tip too high");
        require(r.deadline > block.timestamp, "deadline passed");
        require(IToken(r.token).transferFrom(r.user, address(this), r.tokens), "transfer failed");
        r.isDeposit = true;
        hash = _store(r);
    }

    /// @dev Escrows the units (the vault trusts its provisioner) and stores the request.
    function _requestRedeem(Request memory r) internal returns (bytes32 hash) {
        require(r.token == token, "unsupported token");
        require(r.units != 0, "zero units");
        require(r.deadline > block.timestamp, "deadline passed");
        require(vault.transferFrom(r.user, address(this), r.units), "transfer failed");
        r.isDeposit = false;
        hash = _store(r);
    }

    function _requireFreshPrice(uint256 maxAge) internal view {
        require(calculator.priceAge(address(vault)) <= maxAge, "price too old");
    }

    function _store(Request memory r) private returns (bytes32 hash) {
        hash = keccak256(abi.encode(block.chainid, address(this), r, nonce++));
        _requests[hash] = r;
    }

    function _take(bytes32 hash, bool isDeposit) private returns (Request memory r) {
        r = _requests[hash];
        require(r.user != address(0) && r.isDeposit == isDeposit, "unknown request");
        require(msg.sender == solver, "not solver");
        delete _requests[hash];
    }

    function _takeExpired(bytes32 hash, bool isDeposit) private returns (Request memory r) {
        r = _requests[hash];
        require(r.user != address(0) && r.isDeposit == isDeposit, "unknown request");
        require(block.timestamp > r.deadline, "not expired");
        delete _requests[hash];
    }
}
