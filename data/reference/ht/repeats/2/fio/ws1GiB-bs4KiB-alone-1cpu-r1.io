rchar: 14087334897
wchar: 13662
syscr: 3439482
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
