// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Owned} from "./Owned.sol";

/// @title PriceAndFeeCalculator
/// @notice Aera v3's price-and-fee calculator reduced to what the devnet needs: the operator
/// publishes each vault's unit price (with the time it was struck) and sets its fees in bps.
/// Price convention as in Aera v3 (UNIT_PRICE_PRECISION = 1e18): `price` is the numeraire's base
/// units per 1e18 units, i.e. per whole unit (a USDC vault at 1.000000 USDC a unit has price 1e6).
contract PriceAndFeeCalculator is Owned {
    event UnitPriceUpdated(address indexed vault, uint128 price, uint32 timestamp);
    event VaultFeesSet(address indexed vault, uint16 tvlFee, uint16 performanceFee);

    uint256 public constant UNIT_PRICE_PRECISION = 1e18;
    uint16 internal constant ONE_IN_BPS = 10_000;

    struct VaultState {
        uint128 unitPrice;
        uint32 timestamp;
        uint16 tvlFee;
        uint16 performanceFee;
    }

    mapping(address => VaultState) public vaultState;

    constructor(address owner_) Owned(owner_) {}

    /// @notice Prices only move forward in time and are never struck in the future.
    function setUnitPrice(address vault, uint128 price, uint32 timestamp) external onlyOwner {
        require(price != 0, "zero price");
        require(timestamp <= block.timestamp, "price from the future");
        require(timestamp >= vaultState[vault].timestamp, "stale price");
        vaultState[vault].unitPrice = price;
        vaultState[vault].timestamp = timestamp;
        emit UnitPriceUpdated(vault, price, timestamp);
    }

    function setVaultFees(address vault, uint16 tvlFee, uint16 performanceFee) external onlyOwner {
        require(tvlFee <= ONE_IN_BPS && performanceFee <= ONE_IN_BPS, "fee above 100%");
        vaultState[vault].tvlFee = tvlFee;
        vaultState[vault].performanceFee = performanceFee;
        emit VaultFeesSet(vault, tvlFee, performanceFee);
    }

    function unitPrice(address vault) external view returns (uint128 price, uint32 timestamp) {
        VaultState storage s = vaultState[vault];
        return (s.unitPrice, s.timestamp);
    }

    /// @notice Numeraire base units worth `units` at the vault's price (rounds down).
    function convertUnitsToNumeraire(address vault, uint256 units) public view returns (uint256) {
        return (units * _price(vault)) / UNIT_PRICE_PRECISION;
    }

    /// @notice Units worth `amount` numeraire base units at the vault's price (rounds down).
    function convertNumeraireToUnits(address vault, uint256 amount) public view returns (uint256) {
        return (amount * UNIT_PRICE_PRECISION) / _price(vault);
    }

    /// @notice Seconds since the vault's price was struck (a solver refuses older than maxPriceAge).
    function priceAge(address vault) external view returns (uint256) {
        return block.timestamp - vaultState[vault].timestamp;
    }

    function _price(address vault) internal view returns (uint256) {
        uint256 price = vaultState[vault].unitPrice;
        require(price != 0, "no price");
        return price;
    }
}
