rchar: 31714733046
wchar: 13662
syscr: 1935927
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
