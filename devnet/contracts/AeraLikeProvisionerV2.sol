// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {AeraLikeProvisionerBase} from "./AeraLikeProvisionerBase.sol";
import {AeraLikeVault} from "./AeraLikeVault.sol";
import {PriceAndFeeCalculator} from "./PriceAndFeeCalculator.sol";

/// @title AeraLikeProvisionerV2
/// @notice The second provisioner version: a request names a `receiver` of its settlement
/// (refunds still go back to the user), so both *Requested events gain `address indexed
/// receiver` after `user` (a new topic0); and a sync `redeem` pays out at once (`Redeemed`).
contract AeraLikeProvisionerV2 is AeraLikeProvisionerBase {
    event DepositRequested(
        address indexed user,
        address indexed receiver,
        address indexed token,
        uint256 tokensIn,
        uint256 minUnitsOut,
        uint256 solverTip,
        uint256 deadline,
        uint256 maxPriceAge,
        bool isFixedPrice,
        bytes32 depositRequestHash
    );
    event RedeemRequested(
        address indexed user,
        address indexed receiver,
        address indexed token,
        uint256 minTokensOut,
        uint256 unitsIn,
        uint256 solverTip,
        uint256 deadline,
        uint256 maxPriceAge,
        bool isFixedPrice,
        bytes32 redeemRequestHash
    );
    event Redeemed(
        address indexed user, address indexed receiver, address indexed token, uint256 unitsIn, uint256 tokensOut
    );

    constructor(address owner_, AeraLikeVault vault_, PriceAndFeeCalculator calculator_, address token_, address solver_)
        AeraLikeProvisionerBase(owner_, vault_, calculator_, token_, solver_)
    {}

    function requestDeposit(
        address token_,
        uint256 tokensIn,
        uint256 minUnitsOut,
        uint256 solverTip,
        uint256 deadline,
        uint256 maxPriceAge,
        bool isFixedPrice,
        address receiver
    ) external returns (bytes32 hash) {
        Request memory r = Request(
            msg.sender, receiver, token_, tokensIn, minUnitsOut, solverTip, deadline, maxPriceAge, isFixedPrice, true
        );
        hash = _requestDeposit(r);
        emit DepositRequested(
            r.user, r.receiver, r.token, r.tokens, r.units, r.solverTip, r.deadline, r.maxPriceAge, r.isFixedPrice, hash
        );
    }

    function requestRedeem(
        address token_,
        uint256 unitsIn,
        uint256 minTokensOut,
        uint256 solverTip,
        uint256 deadline,
        uint256 maxPriceAge,
        bool isFixedPrice,
        address receiver
    ) external returns (bytes32 hash) {
        Request memory r = Request(
            msg.sender, receiver, token_, minTokensOut, unitsIn, solverTip, deadline, maxPriceAge, isFixedPrice, false
        );
        hash = _requestRedeem(r);
        emit RedeemRequested(
            r.user, r.receiver, r.token, r.tokens, r.units, r.solverTip, r.deadline, r.maxPriceAge, r.isFixedPrice, hash
        );
    }

    /// @notice Sync redeem at the calculator's price: burns the caller's units, pays `receiver`.
    function redeem(address token_, uint256 unitsIn, uint256 minTokensOut, address receiver)
        external
        returns (uint256 tokensOut)
    {
        require(token_ == token, "unsupported token");
        _requireFreshPrice(SYNC_MAX_PRICE_AGE);
        tokensOut = calculator.convertUnitsToNumeraire(address(vault), unitsIn);
        require(tokensOut != 0 && tokensOut >= minTokensOut, "slippage");
        vault.exit(msg.sender, token_, tokensOut, unitsIn, receiver);
        emit Redeemed(msg.sender, receiver, token_, unitsIn, tokensOut);
    }
}
