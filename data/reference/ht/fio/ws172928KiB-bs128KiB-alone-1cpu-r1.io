rchar: 38441430132
wchar: 13662
syscr: 293524
syscw: 5
read_bytes: 606208
write_bytes: 8192
cancelled_write_bytes: 0
