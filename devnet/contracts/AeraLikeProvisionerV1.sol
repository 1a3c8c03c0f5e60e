// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {AeraLikeProvisionerBase} from "./AeraLikeProvisionerBase.sol";
import {AeraLikeVault} from "./AeraLikeVault.sol";
import {PriceAndFeeCalculator} from "./PriceAndFeeCalculator.sol";

/// @title AeraLikeProvisionerV1
/// @notice The first provisioner version: requests always settle to the requesting user, and
/// there is no sync redeem. Its *Requested events have no receiver (topic0 differs from v2's).
contract AeraLikeProvisionerV1 is AeraLikeProvisionerBase {
    event DepositRequested(
        address indexed user,
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
        address indexed token,
        uint256 minTokensOut,
        uint256 unitsIn,
        uint256 solverTip,
        uint256 deadline,
        uint256 maxPriceAge,
        bool isFixedPrice,
        bytes32 redeemRequestHash
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
        bool isFixedPrice
    ) external returns (bytes32 hash) {
        Request memory r = Request(
            msg.sender, msg.sender, token_, tokensIn, minUnitsOut, solverTip, deadline, maxPriceAge, isFixedPrice, true
        );
        hash = _requestDeposit(r);
        emit DepositRequested(
            r.user, r.token, r.tokens, r.units, r.solverTip, r.deadline, r.maxPriceAge, r.isFixedPrice, hash
        );
    }

    function requestRedeem(
        address token_,
        uint256 unitsIn,
        uint256 minTokensOut,
        uint256 solverTip,
        uint256 deadline,
        uint256 maxPriceAge,
        bool isFixedPrice
    ) external returns (bytes32 hash) {
        Request memory r = Request(
            msg.sender, msg.sender, token_, minTokensOut, unitsIn, solverTip, deadline, maxPriceAge, isFixedPrice, false
        );
        hash = _requestRedeem(r);
        emit RedeemRequested(
            r.user, r.token, r.tokens, r.units, r.solverTip, r.deadline, r.maxPriceAge, r.isFixedPrice, hash
        );
    }
}
