rchar: 22684707748
wchar: 13667
syscr: 5538452
syscw: 5
read_bytes: 360448
write_bytes: 8192
cancelled_write_bytes: 0
