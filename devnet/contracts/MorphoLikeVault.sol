// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20Base} from "./ERC20Base.sol";
import {Owned} from "./Owned.sol";
import {IToken} from "./IToken.sol";

/// @title MorphoLikeVault
/// @notice An ERC-4626 vault shaped like MetaMorpho v1: same events, same share math (virtual
/// shares through a decimals offset, so shares have 18 decimals whatever the asset), a WAD
/// performance fee paid in shares on every interest accrual, a curator. The assets sit idle in
/// the vault; yield is simulated: `accrueInterest` first mints `lastTotalAssets × rate × dt`
/// of the asset into the vault at an owner-set per-second rate, deterministic and keeper-driven.
/// Amounts on a devnet stay far below 2^128, so plain checked `a * b / c` cannot overflow.
contract MorphoLikeVault is ERC20Base, Owned {
    event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);
    event Withdraw(
        address indexed sender, address indexed receiver, address indexed owner, uint256 assets, uint256 shares
    );
    event AccrueInterest(uint256 newTotalAssets, uint256 feeShares);
    event SetFee(address indexed caller, uint256 newFee);
    event SetCurator(address indexed newCurator);

    uint256 internal constant WAD = 1e18;
    /// @notice MetaMorpho's cap on the performance fee (50 %).
    uint256 public constant MAX_FEE = 0.5e18;

    address public immutable asset;
    uint8 public immutable DECIMALS_OFFSET;
    uint256 internal immutable VIRTUAL_SHARES;
    address public immutable feeRecipient;

    address public curator;
    uint256 public fee;
    /// @notice MetaMorpho's delay before a market cap increase or guardian change takes effect;
    /// real vaults start at MIN_TIMELOCK (1 day). The indexer reads it into the definition.
    uint256 public timelock = 1 days;
    /// @notice Total assets at the last accrual: the fee is taken on growth beyond it.
    uint256 public lastTotalAssets;
    /// @notice Simulated yield, WAD per second (5 % a year ≈ 1.585e9); no event, as no real vault has one.
    uint256 public yieldRatePerSecond;
    uint256 public lastYieldTime;

    constructor(address owner_, address asset_, address feeRecipient_, string memory name_, string memory symbol_)
        ERC20Base(name_, symbol_)
        Owned(owner_)
    {
        asset = asset_;
        uint8 assetDecimals = IToken(asset_).decimals();
        DECIMALS_OFFSET = assetDecimals >= 18 ? 0 : 18 - assetDecimals;
        VIRTUAL_SHARES = 10 ** DECIMALS_OFFSET;
        feeRecipient = feeRecipient_;
        lastYieldTime = block.timestamp;
    }

    function decimals() public pure override returns (uint8) {
        return 18;
    }

    // ---- owner ----

    function setCurator(address newCurator) external onlyOwner {
        require(newCurator != curator, "already set");
        curator = newCurator;
        emit SetCurator(newCurator);
    }

    /// @notice Accrues at the old fee first, as MetaMorpho does, so the change applies from now.
    function setFee(uint256 newFee) external onlyOwner {
        require(newFee != fee, "already set");
        require(newFee <= MAX_FEE, "max fee exceeded");
        _accrueInterest();
        fee = newFee;
        emit SetFee(msg.sender, newFee);
    }

    function setYieldRate(uint256 ratePerSecond) external onlyOwner {
        yieldRatePerSecond = ratePerSecond;
    }

    // ---- accrual ----

    /// @notice Realises the simulated yield, then takes the fee on it (emits AccrueInterest).
    function accrueInterest() external {
        uint256 elapsed = block.timestamp - lastYieldTime;
        lastYieldTime = block.timestamp;
        uint256 yield_ = (lastTotalAssets * yieldRatePerSecond * elapsed) / WAD;
        if (yield_ != 0) IToken(asset).mint(address(this), yield_);
        _accrueInterest();
    }

    function totalAssets() public view returns (uint256) {
        return IToken(asset).balanceOf(address(this));
    }

    // ---- ERC-4626 ----

    function deposit(uint256 assets, address receiver) external returns (uint256 shares) {
        uint256 newTotalAssets = _accrueInterest();
        shares = _toShares(assets, totalSupply, newTotalAssets, false);
        require(shares != 0, "zero shares");
        _deposit(receiver, assets, shares);
    }

    function mint(uint256 shares, address receiver) external returns (uint256 assets) {
        uint256 newTotalAssets = _accrueInterest();
        assets = _toAssets(shares, totalSupply, newTotalAssets, true);
        _deposit(receiver, assets, shares);
    }

    function withdraw(uint256 assets, address receiver, address holder) external returns (uint256 shares) {
        uint256 newTotalAssets = _accrueInterest();
        shares = _toShares(assets, totalSupply, newTotalAssets, true);
        _withdraw(receiver, holder, assets, shares);
    }

    function redeem(uint256 shares, address receiver, address holder) external returns (uint256 assets) {
        uint256 newTotalAssets = _accrueInterest();
        assets = _toAssets(shares, totalSupply, newTotalAssets, false);
        _withdraw(receiver, holder, assets, shares);
    }

    function convertToShares(uint256 assets) external view returns (uint256) {
        return _toShares(assets, totalSupply, totalAssets(), false);
    }

    function convertToAssets(uint256 shares) public view returns (uint256) {
        return _toAssets(shares, totalSupply, totalAssets(), false);
    }

    function maxWithdraw(address holder) external view returns (uint256) {
        return convertToAssets(balanceOf[holder]);
    }

    function maxRedeem(address holder) external view returns (uint256) {
        return balanceOf[holder];
    }

    // ---- internals ----

    /// @dev MetaMorpho's `_accrueInterest`: fee shares minted at the post-fee price, event always emitted.
    function _accrueInterest() internal returns (uint256 newTotalAssets) {
        newTotalAssets = totalAssets();
        uint256 interest = newTotalAssets > lastTotalAssets ? newTotalAssets - lastTotalAssets : 0;
        uint256 feeShares;
        if (interest != 0 && fee != 0) {
            uint256 feeAssets = (interest * fee) / WAD;
            feeShares = _toShares(feeAssets, totalSupply, newTotalAssets - feeAssets, false);
            if (feeShares != 0) _mint(feeRecipient, feeShares);
        }
        lastTotalAssets = newTotalAssets;
        emit AccrueInterest(newTotalAssets, feeShares);
    }

    function _deposit(address receiver, uint256 assets, uint256 shares) internal {
        require(IToken(asset).transferFrom(msg.sender, address(this), assets), "transfer failed");
        _mint(receiver, shares);
        lastTotalAssets += assets;
        emit Deposit(msg.sender, receiver, assets, shares);
    }

    function _withdraw(address receiver, address holder, uint256 assets, uint256 shares) internal {
        if (msg.sender != holder) _spendAllowance(holder, msg.sender, shares);
        _burn(holder, shares);
        lastTotalAssets = lastTotalAssets > assets ? lastTotalAssets - assets : 0;
        require(IToken(asset).transfer(receiver, assets), "transfer failed");
        emit Withdraw(msg.sender, receiver, holder, assets, shares);
    }

    function _toShares(uint256 assets, uint256 supply, uint256 total, bool roundUp) internal view returns (uint256) {
        return _mulDiv(assets, supply + VIRTUAL_SHARES, total + 1, roundUp);
    }

    function _toAssets(uint256 shares, uint256 supply, uint256 total, bool roundUp) internal view returns (uint256) {
        return _mulDiv(shares, total + 1, supply + VIRTUAL_SHARES, roundUp);
    }

    function _mulDiv(uint256 a, uint256 b, uint256 c, bool roundUp) internal pure returns (uint256) {
        uint256 p = a * b;
        return roundUp ? (p + c - 1) / c : p / c;
    }
}
