rchar: 43113032653
wchar: 13663
syscr: 2631623
syscw: 5
read_bytes: 1126400
write_bytes: 8192
cancelled_write_bytes: 0
