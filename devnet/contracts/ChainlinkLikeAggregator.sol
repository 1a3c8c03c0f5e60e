// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Owned} from "./Owned.sol";

/// @title ChainlinkLikeAggregator
/// @notice A USD price feed with Chainlink's read interface (AggregatorV3: `latestRoundData`,
/// `getRoundData`, 8 decimals) and its `AnswerUpdated` event. The owner pushes each answer;
/// every push is a new round stamped with the block time. (Chainlink's npm mocks emit nothing.)
contract ChainlinkLikeAggregator is Owned {
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    struct Round {
        int256 answer;
        uint256 updatedAt;
    }

    uint8 public constant decimals = 8;
    uint256 public constant version = 4;
    string public description;
    uint256 public latestRound;
    mapping(uint256 => Round) internal _rounds;

    constructor(address owner_, string memory description_) Owned(owner_) {
        description = description_;
    }

    function updateAnswer(int256 answer) external onlyOwner {
        uint256 roundId = ++latestRound;
        _rounds[roundId] = Round(answer, block.timestamp);
        emit AnswerUpdated(answer, roundId, block.timestamp);
    }

    function latestAnswer() external view returns (int256) {
        return _rounds[latestRound].answer;
    }

    function latestTimestamp() external view returns (uint256) {
        return _rounds[latestRound].updatedAt;
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(uint80(latestRound));
    }

    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round storage r = _rounds[roundId];
        require(r.updatedAt != 0, "No data present");
        return (roundId, r.answer, r.updatedAt, r.updatedAt, roundId);
    }
}
